// Chute sensor housing: a short tunnel that sits on the table against the tower's front face,
// takes every cube that leaves the exit, funnels it into a narrow chute and lets it pass under
// the colour sensor and through the IR break-beam before it drops into the tray.
//
// Frame: x across the chute (centred), y along it from the tower face (y = 0) towards the tray,
// z up from the table. It prints the way it stands: open bottom on the bed, the ceiling bridges
// the chute, the board pockets are rims on the top deck.
//
// Fitting: the back flange goes flat against the tower around the exit (double-sided tape or
// reusable putty; the tower is cardboard). The TCS34725 breakout lies face down over the sensor
// window; the Pico lies in its pocket on the side deck with its USB socket at the tray end; the
// IR emitter goes into the sleeve on the left wall, the receiver into the right wall from
// inside the side compartment.
// preview-camera: 0,0,0,60,0,150,300

include <params.scad>
use <lib.scad>

ceiling = 2;                                    // thin, so the sensor sits close to the cubes
deck_z = chute_h + ceiling;                     // top of the ceiling
inner_entry = [tower_exit_w + 2 * tol, tower_exit_h + tol];
side_bay = mcu_board[1] + 2 * tol + 2 * wall;   // compartment beside the chute under the Pico
rim = 2;                                        // height of the pocket rims above the deck
sensor_y = funnel_len + (chute_len - funnel_len) / 2;
flange = [inner_entry[0] + 2 * 12, inner_entry[1] + 10, thick];
sleeve = [beam_hole + 2 * wall, 6];             // emitter sleeve: width, length
// The Pi's own break-beam ("cubes are falling into the tray") sits near the chute's end, so
// this housing is also the tray-entry mount; it needs no chute sensor electronics.
tray_beam_y = chute_len - sleeve[0] / 2 - 1;
beams = [sensor_y, tray_beam_y];

assert(chute_len - funnel_len >= sensor_board[1] + 2 * wall,
       "the straight part of the chute is too short for the sensor board");
assert(chute_len >= mcu_board[0] + 2 * tol + 2 * wall,
       "the chute is shorter than the MCU board: lengthen chute_len");
assert(chute_w > 1.5 * cube_size, "chute_w must let a cube pass turned on its edge");

// The cross-section at y: width and height of the inner passage (the funnel narrows to the chute).
module passage() {
    hull() {
        translate([-inner_entry[0] / 2, -1, -1]) cube([inner_entry[0], 1, inner_entry[1] + 1]);
        translate([-chute_w / 2, funnel_len, -1]) cube([chute_w, 1, chute_h + 1]);
    }
    translate([-chute_w / 2, funnel_len, -1]) cube([chute_w, chute_len - funnel_len + 1, chute_h + 1]);
}

module shell() {
    hull() {
        translate([-inner_entry[0] / 2 - wall, 0, 0])
            cube([inner_entry[0] + 2 * wall, 1, inner_entry[1] + ceiling]);
        translate([-chute_w / 2 - wall, funnel_len, 0]) cube([chute_w + 2 * wall, 1, deck_z]);
    }
    translate([-chute_w / 2 - wall, funnel_len, 0]) cube([chute_w + 2 * wall, chute_len - funnel_len, deck_z]);
    // Side compartment under the MCU deck, open at the bottom, on the +x side.
    translate([chute_w / 2, 0, 0]) cube([side_bay, chute_len, deck_z]);
    // Back flange against the tower.
    translate([-flange[0] / 2, 0, 0]) cube([flange[0], flange[2], flange[1]]);
}

module pockets() {
    // Sensor: rim around the breakout, centred over the window.
    translate([0, sensor_y, deck_z]) difference() {
        translate([-sensor_board[0] / 2 - tol - wall, -sensor_board[1] / 2 - tol - wall, 0])
            cube([sensor_board[0] + 2 * (tol + wall), sensor_board[1] + 2 * (tol + wall), rim]);
        translate([-sensor_board[0] / 2 - tol, -sensor_board[1] / 2 - tol, -1])
            cube([sensor_board[0] + 2 * tol, sensor_board[1] + 2 * tol, rim + 2]);
        // Gap for the breakout's header wires towards the Pico.
        translate([sensor_board[0] / 2 - 1, -5, -1]) cube([wall + tol + 2, 10, rim + 2]);
    }
    // MCU: rim around the Pico along the side deck, open at the tray end for the USB plug.
    mcu_x = chute_w / 2 + side_bay / 2;
    translate([mcu_x, chute_len / 2, deck_z]) difference() {
        translate([-mcu_board[1] / 2 - tol - wall, -mcu_board[0] / 2 - tol - wall, 0])
            cube([mcu_board[1] + 2 * (tol + wall), mcu_board[0] + 2 * (tol + wall), rim]);
        translate([-mcu_board[1] / 2 - tol, -mcu_board[0] / 2 - tol, -1])
            cube([mcu_board[1] + 2 * tol, mcu_board[0] + 2 * tol, rim + 2]);
        translate([-mcu_usb_w / 2, mcu_board[0] / 2 - 1, -1]) cube([mcu_usb_w, wall + tol + 2, rim + 2]);
        translate([-mcu_board[1] / 2 - tol - wall - 1, -5, -1]) cube([wall + 2, 10, rim + 2]);
    }
    // Emitter sleeves on the outside of the left wall, blocks down to the table so they print.
    for (y = beams)
        translate([-chute_w / 2 - wall - sleeve[1], y - sleeve[0] / 2, 0])
            cube([sleeve[1], sleeve[0], beam_height + sleeve[0] / 2]);
}

module holes() {
    passage();
    // Opening in the flange that matches the tower's exit.
    translate([-inner_entry[0] / 2, -1, -1]) cube([inner_entry[0], flange[2] + 2, inner_entry[1] + 1]);
    // Sensor window through the ceiling.
    translate([0, sensor_y, chute_h - 1]) cylinder(d = sensor_window, h = ceiling + 2);
    // Break-beams: straight holes through the emitter sleeve, both chute walls and into the bay.
    for (y = beams)
        translate([-chute_w / 2 - wall - sleeve[1] - 1, y, beam_height]) rotate([0, 90, 0])
            beam_hole_teardrop(chute_w + 2 * wall + sleeve[1] + 2);
    // Hollow side compartment (open bottom), with a hole up to the Pico for the receiver's wires.
    translate([chute_w / 2 + wall, wall, -1]) cube([side_bay - 2 * wall, chute_len - 2 * wall, deck_z - ceiling + 1]);
    translate([chute_w / 2 + side_bay / 2, sensor_y + 12, deck_z - ceiling - 1]) cylinder(d = 5, h = ceiling + 2);
}

// A horizontal hole for a 5 mm LED body along the local z axis, with a 45 degree point on the
// side that faces up once the caller turns it horizontal with rotate([0, 90, 0]) (local -x is
// then world +z): a teardrop prints without support, a round roof would sag.
module beam_hole_teardrop(length) {
    hull() {
        cylinder(d = beam_hole, h = length);
        translate([-beam_hole / 2 * sqrt(2), 0, 0]) cylinder(d = 0.1, h = length);
    }
}

module housing() {
    difference() {
        union() {
            shell();
            pockets();
        }
        holes();
    }
}

housing();
