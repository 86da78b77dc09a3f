// Camera arm: an upright beside the tray and a boom that holds the camera straight above the
// tray's centre at camera_height, with the LED ring holder screwed under the camera plate.
//
// Modelled where it stands (x along the boom towards the tray centre, z up, the arm's flat
// face at y = 0) and then laid on its side for printing: the whole L lies flat on the bed, so
// it prints without supports; the foot and the camera plate rise from the bed as walls.
// Screw the foot to the base board (4 wood screws); the camera axis is then cam_axis_y in front
// of the arm's flat face.
// preview-camera: 0,0,0,40,0,200,500

include <params.scad>
use <lib.scad>

foot_w = 70;       // foot plate on the table: width across the arm (y)
foot_t = 5;
foot_x = [-58, 20]; // the foot's ends along x: mostly away from the tray, under the upright
plate_len = led_holder_screw_spacing + 14;
// The board's far hole row and edge lie beyond the lens (see camera_holes), plus a margin.
plate_w = cam_axis_y + cam_holes[1] + cam_hole_inset + 4;
top_z = plate_z + arm_bar;

assert(camera_height >= camera_min && camera_height <= camera_max,
       str("camera_height must be ", camera_min, "..", camera_max, " mm over the tray"));
assert(top_z <= bed[1],
       str("the arm is ", top_z, " mm long and does not fit a ", bed[1],
           " mm bed: lower camera_height or set bed to your printer's size"));

// Camera Module 3 holes: the lens sits on the line of one hole row, the other row is
// cam_holes[1] further from the boom, and the ribbon leaves from that far edge (through the
// slot in the LED ring holder), away from the boom.
module camera_holes() {
    for (sx = [-1, 1], row = [0, 1])
        translate([sx * cam_holes[0] / 2, row * cam_holes[1], 0]) through_hole(screw_m2, thick);
}

module camera_plate() {
    translate([arm_reach, 0, plate_z]) difference() {
        translate([-plate_len / 2, 0, 0]) cube([plate_len, plate_w, thick]);
        translate([0, cam_axis_y, 0]) {
            through_hole(cam_lens_window, thick);
            camera_holes();
            // M3 holes for the LED ring holder's tabs, either side of the lens.
            for (sx = [-1, 1])
                translate([sx * led_holder_screw_spacing / 2, 0, 0]) through_hole(screw_m3, thick);
        }
    }
}

module upright_and_boom() {
    // The L in the x-z plane, extruded arm_t across.
    rotate([90, 0, 0]) translate([0, 0, -arm_t]) linear_extrude(height = arm_t) {
        translate([-arm_bar / 2, 0]) square([arm_bar, top_z]);
        translate([-arm_bar / 2, plate_z]) square([arm_reach + plate_len / 2 + arm_bar / 2, arm_bar]);
    }
    // Gusset inside the elbow, and two at the foot.
    translate([arm_bar / 2, 0, plate_z]) mirror([0, 0, 1]) gusset(45, 45, arm_t);
    translate([-arm_bar / 2, 0, foot_t]) mirror([1, 0, 0]) gusset(30, 40, arm_t);
    translate([arm_bar / 2, 0, foot_t]) gusset(foot_x[1] - arm_bar / 2, 40, arm_t);
}

module foot_plate() {
    difference() {
        translate([foot_x[0], 0, 0]) cube([foot_x[1] - foot_x[0], foot_w, foot_t]);
        // Wood screws clear of the upright and its gussets (which stand on y = 0..arm_t).
        for (x = [foot_x[0] + 8, foot_x[1] - 8], y = [arm_t + 12, foot_w - 10])
            translate([x, y, 0]) through_hole(screw_wood, foot_t);
    }
}

module camera_arm() {
    upright_and_boom();
    foot_plate();
    camera_plate();
}

// Printing orientation: the arm's flat face (y = 0) goes down onto the bed.
camera_arm_print();

module camera_arm_print() {
    rotate([90, 0, 0]) camera_arm();
}
