// Small helpers shared by the parts. Units: millimetres. Every helper keeps its solid at the
// origin in a stated way so parts can place it without guessing.

// A tiny overshoot so that cut-outs pass cleanly through faces (avoids zero-thickness skins).
eps = 0.01;

// A rectangle [x, y] with rounded corners of radius r, lower-left corner at the origin.
module rounded_rect(size, r) {
    rr = min(r, size[0] / 2 - eps, size[1] / 2 - eps);
    translate([rr, rr]) offset(r = rr) square([size[0] - 2 * rr, size[1] - 2 * rr]);
}

// A plate [x, y, z] with rounded vertical edges, lower-left-bottom corner at the origin.
module rounded_plate(size, r) {
    linear_extrude(height = size[2]) rounded_rect([size[0], size[1]], r);
}

// A vertical through-hole of diameter d for a plate of thickness h whose bottom is at z = 0.
module through_hole(d, h) {
    translate([0, 0, -1]) cylinder(d = d, h = h + 2);
}

// Places its children at the four corners of a rectangle [x, y] centred on the origin.
module at_corners(spacing) {
    for (sx = [-1, 1], sy = [-1, 1])
        translate([sx * spacing[0] / 2, sy * spacing[1] / 2, 0]) children();
}

// Keeps its children and adds their mirror image across the plane with normal v.
module mirror_copy(v) {
    children();
    mirror(v) children();
}

// A right-triangle gusset in the x-z plane with legs a (along x) and b (along z), t thick in y,
// the right angle at the origin. Stiffens the inside of a corner.
module gusset(a, b, t) {
    rotate([90, 0, 0]) translate([0, 0, -t]) linear_extrude(height = t)
        polygon([[0, 0], [a, 0], [0, b]]);
}

// A bar in the x-y plane along the segment p -> q, w wide and t thick (z from 0 to t), with
// rounded ends. Used for flat printed arms.
module flat_bar(p, q, w, t) {
    hull() {
        translate([p[0], p[1], 0]) cylinder(d = w, h = t);
        translate([q[0], q[1], 0]) cylinder(d = w, h = t);
    }
}
