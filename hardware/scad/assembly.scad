// The whole set-up at the table, for checking that the parts fit together and for the picture
// in docs/parts/assembly.png. Not a part: `make parts` does not render it.
// Grey boxes stand for things we do not print: the tower, the tray, the display.
// preview-camera: 0,0,0,60,0,330,900

include <params.scad>
use <camera_arm.scad>
use <led_ring_holder.scad>
use <chute_sensor_housing.scad>
use <pi_screen_stand.scad>

screen = [194, 10, 110.76];   // official 7" display: width, thickness, height

// The tower (front-left corner at the origin, front face at y = 0) and the tray in front.
color("BurlyWood", 0.5) translate([0, 0, 0]) cube([tower_w, tower_d, tower_h]);
color("SaddleBrown", 0.6)
    translate([tray_centre[0] - tray_w / 2, tray_centre[1] - tray_d / 2, 0]) difference() {
        cube([tray_w, tray_d, tray_floor + 12]);
        translate([2, 2, tray_floor]) cube([tray_w - 4, tray_d - 4, 20]);
    }

// Camera arm: upright to the right of the tray, boom pointing left over the tray centre.
arm_x = tray_centre[0] + tray_w / 2 + arm_side_clearance + arm_bar / 2;
arm_y = tray_centre[1] + cam_axis_y;
color("SteelBlue") translate([arm_x, arm_y, 0]) rotate([0, 0, 180]) camera_arm();
color("Gold") translate([tray_centre[0], tray_centre[1], plate_z]) holder_in_place();

// Chute sensor housing against the tower's exit.
color("SeaGreen") translate([tower_w / 2, 0, 0]) rotate([0, 0, 180]) housing();

// Touchscreen on its two brackets, left of the tower, facing the player (-y).
stand_x = -160;
stand_y = -40;
for (sx = [-1, 1])
    color("Orange") translate([stand_x + sx * screen_holes[0] / 2, stand_y, 0])
        rotate([90, 0, 90]) translate([0, 0, -5]) bracket();
color("DimGray", 0.8) translate([stand_x, stand_y, 8]) rotate([-screen_tilt, 0, 0])
    translate([-screen[0] / 2, -screen[1], 0]) cube(screen);
