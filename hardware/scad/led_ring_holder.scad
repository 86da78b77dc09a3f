// LED ring holder: a short tube that screws under the camera plate (two M3 screws), hides the
// camera board inside it and holds the LED ring around the lens, LEDs facing the tray, so the
// tray is lit evenly from the camera's own direction.
//
// Modelled where it hangs (flange at the top, z = 0 touching the camera plate) and printed
// upside down, flange on the bed, so the ring pocket opens upwards and needs no support. The
// ring is a press fit (tol) with a drop of hot glue.

include <params.scad>
use <lib.scad>

// The camera board hangs inside: its farthest corner from the lens sets the bore.
board_reach = sqrt(pow(cam_board[0] / 2, 2) + pow(cam_holes[1] + cam_hole_inset, 2));
bore = max(led_ring_id, 2 * board_reach + 2 * tol + 1);
pocket = led_ring_od + 2 * tol;
outer = pocket + 2 * wall;
height = thick + cam_depth + led_ring_t;   // ring face level with the lens tip
tab = [led_holder_screw_spacing + 12, 12];
ribbon_slot = [18, cam_depth];             // the camera cable leaves on the side away from the arm
wire_slot = 4;                             // the ring's two wires

assert(bore < pocket - 4, "the LED ring is too small to surround the camera board: choose a larger ring");

module holder_in_place() {
    difference() {
        union() {
            translate([0, 0, -height]) cylinder(d = outer, h = height);
            translate([-tab[0] / 2, -tab[1] / 2, -thick]) rounded_plate([tab[0], tab[1], thick], 4);
        }
        // Bore for the camera, and the ring pocket at the bottom.
        translate([0, 0, -height - 1]) cylinder(d = bore, h = height + 2);
        translate([0, 0, -height - 1]) cylinder(d = pocket, h = led_ring_t + 1);
        // Screws into the camera plate.
        for (sx = [-1, 1])
            translate([sx * led_holder_screw_spacing / 2, 0, -thick]) through_hole(screw_m3, thick);
        // Ribbon cable slot from the flange down, on the +y side (away from the arm).
        translate([-ribbon_slot[0] / 2, 0, -ribbon_slot[1]]) cube([ribbon_slot[0], outer, ribbon_slot[1] + 1]);
        // Wire slot for the ring's leads, just above the pocket, on the -x side.
        translate([-outer / 2 - 1, -wire_slot / 2, -height - 1]) cube([outer / 2, wire_slot, led_ring_t + 5]);
    }
}

// Printing orientation: flange down.
rotate([180, 0, 0]) holder_in_place();
