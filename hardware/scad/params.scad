// Tower Companion: every dimension the printed parts share, in millimetres.
//
// Measure your own tower, tray and boards and change the values here; every part reads this
// file, so they stay consistent. A single value can also be overridden for one render:
//   openscad -D 'camera_height=250' -o camera_arm.stl camera_arm.scad
//
// Coordinates where a part describes its place at the table: x to the right along the tower's
// front, y away from the player, z up; the table is z = 0.

// ---- Printing --------------------------------------------------------------------------------
wall = 2.4;            // outer walls: six 0.4 mm perimeters, stiff enough for a mount
thick = 4;             // plates that carry screws
tol = 0.3;             // clearance for parts that slide into each other or into a pocket
screw_m2 = 2.4;        // clearance hole for an M2 screw (camera board)
screw_m3 = 3.4;        // clearance hole for an M3 screw (all other parts)
screw_wood = 4.5;      // clearance hole for a 4 mm wood screw into the base board
bed = [220, 220, 250]; // smallest printer the parts are sized for (Ender-3 class)
$fn = 36;              // kept modest so every part renders in seconds

// ---- The game's cubes ---------------------------------------------------------------------------
cube_size = 10;        // Amerigo's wooden cubes; measure yours (some print runs are 9.5 mm)

// ---- The dice tower -------------------------------------------------------------------------------
tower_w = 125;         // footprint across the front
tower_d = 125;         // footprint front to back
tower_h = 270;         // total height, used only in the assembly notes
tower_exit_w = 56;     // opening at the foot of the front face where the cubes come out
tower_exit_h = 32;

// ---- The tray in front of the tower --------------------------------------------------------------
tray_w = 170;          // inside width of the tray the camera must see
tray_d = 120;          // inside depth
tray_floor = 3;        // height of the tray floor above the table
tray_gap = 60;         // from the tower's front face to the tray's back edge (the chute sits here)
// The tray's centre at the table, in the tower's frame (tower front-left corner at 0,0).
tray_centre = [tower_w / 2, -(tray_gap + tray_d / 2)];

// ---- Camera ----------------------------------------------------------------------------------------
camera_height = 180;   // lens above the tray floor, 150..300; 180 sees a 170x120 tray with a CM3
                       // and keeps the arm within a 220 mm bed
camera_min = 150;
camera_max = 300;
cam_board = [25, 24];        // Camera Module 3 board (the same as v2)
cam_holes = [21, 12.5];      // M2 hole spacing on that board
cam_hole_inset = 2;          // hole centres from the board's lower-left edges
cam_lens_window = 14;        // hole the lens looks through, generous for the CM3's autofocus barrel
cam_depth = 12;              // board plus lens below the plate the board screws to
arm_side_clearance = 20;     // from the tray's right edge to the arm's upright
arm_bar = 18;                // in-plane width of the arm's upright and boom: the direction the
                             // camera's weight bends them, so this is where stiffness comes from
arm_t = 10;                  // thickness of the arm across its plane (its print height)
// Derived, in the arm's own frame (upright centreline x = 0, arm face y = 0, table z = 0):
arm_reach = tray_w / 2 + arm_side_clearance + arm_bar / 2;   // upright to camera axis
plate_z = tray_floor + camera_height + cam_depth;            // underside of the camera plate
cam_axis_y = arm_t + cam_lens_window / 2 + 3;                // lens window clear of the boom

// ---- LED ring (a plain white 5 V ring dimmed by PWM through a MOSFET) ----------------------------
led_ring_od = 52;
led_ring_id = 36;
led_ring_t = 3.5;            // board plus LEDs
led_holder_screw_spacing = led_ring_od + 2 * wall + 2 * 6; // M3 tabs either side of the ring

// ---- Chute sensor (RP2040 board + TCS34725 breakout + IR break-beam) -------------------------------
chute_w = 2 * cube_size + 4;            // narrow enough for the sensor to see every cube
chute_h = 1.6 * cube_size;              // a tumbling cube (14 mm face diagonal) still passes, and
                                        // the sensor is only 8 mm above a cube lying flat
chute_len = tray_gap;                   // from the tower face to the tray
funnel_len = 18;                        // first part of the chute narrows from the exit width
sensor_board = [20.4, 20.3, 1.6];       // Adafruit TCS34725 breakout
sensor_window = 10;                     // hole under the sensor and its white LED
beam_hole = 5.2;                        // 5 mm IR LED / receiver bodies
beam_height = cube_size / 2;            // beam across the chute at half a cube above the floor
mcu_board = [51, 21, 1.0];              // Raspberry Pi Pico
mcu_usb_w = 12;                         // cut-out for the micro-USB plug at one end

// ---- Touchscreen stand ------------------------------------------------------------------------
screen_holes = [126.2, 65.65];  // M3 holes on the back of the official 7" display (check yours)
screen_boss_h = 8;              // spacer between stand and display back, clears the ribbon cables
screen_tilt = 20;               // degrees the screen leans back from vertical
stand_depth = 90;               // how far the legs reach back on the table
