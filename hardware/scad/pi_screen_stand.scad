// Pi and screen stand: two identical side brackets that hold the 7" touchscreen (with the Pi
// on its back) leaning back by screen_tilt degrees. Each bracket screws to the two display
// holes on its side with M3 x 10 screws, so the brackets stay clear of the Pi in the middle.
//
// A bracket is a flat frame drawn in its own plane (h backwards along the table, v up) and
// printed lying flat; this file lays out the pair side by side for one print.
// preview-camera: 0,0,0,50,0,320,400

include <params.scad>
use <lib.scad>

screen = [194, 110.76];   // official 7" display outline (width, height)
bt = 10;                  // bracket thickness (across the screen): the screw runs inside it
strip = 12;               // depth of the strip that lies against the display's back
lift = 8;                 // gap from the table to the display's lower edge
foot_h = 8;               // height of the bar that lies on the table
front_reach = 16;         // the foot reaches this far in front of the display's lower edge
frame = 10;               // width of the frame around the lightening window
head = [6.5, 6];          // M3 head counterbore: diameter, depth into the strip from its back

hole_u = [(screen[1] - screen_holes[1]) / 2, (screen[1] + screen_holes[1]) / 2];

// Display-back frame (x = w backwards from the display's back, y = u up along it) to the
// bracket's plane (h, v): rotate by the tilt, lift off the table.
module on_display_back() {
    translate([0, lift]) rotate(-screen_tilt) children();
}

module strip_2d() {
    // From below the lower hole to the display's top edge, so the window lies behind both holes.
    on_display_back() translate([0, hole_u[0] - 10]) square([strip, screen[1] - hole_u[0] + 10]);
}

module foot_2d() {
    translate([-front_reach, 0]) square([front_reach + stand_depth, foot_h]);
}

// The part of the foot behind the display's back plane: hulled with the strip its front edge
// runs exactly along the display's back, so nothing pokes into the display.
module rear_foot_2d() {
    square([stand_depth, foot_h]);
}

module bracket_2d() {
    difference() {
        hull() {
            strip_2d();
            rear_foot_2d();
        }
        offset(r = -frame) hull() {
            strip_2d();
            rear_foot_2d();
        }
    }
    strip_2d();
    foot_2d();
}

// Screw channels along w through the strip, with a counterbore for the head at the back.
module screw_channels() {
    for (u = hole_u)
        translate([0, lift, bt / 2]) rotate([0, 0, -screen_tilt]) translate([0, u, 0])
            rotate([0, 90, 0]) {
                translate([0, 0, -1]) cylinder(d = screw_m3, h = strip + 2);
                // The head's bore runs on backwards into the window, for the screwdriver.
                translate([0, 0, strip - head[1]]) cylinder(d = head[0], h = head[1] + 12);
            }
}

module bracket() {
    difference() {
        linear_extrude(height = bt) bracket_2d();
        screw_channels();
    }
}

// A pair, side by side along the foot (one for each side of the screen); 6 mm apart, the pair
// just fits a 220 mm bed.
pair_gap = 6;
assert(2 * (front_reach + stand_depth) + pair_gap <= bed[0],
       "two brackets do not fit the bed side by side: shorten stand_depth or print them one by one");
for (i = [0, 1]) translate([i * (front_reach + stand_depth + pair_gap), 0, 0]) bracket();
