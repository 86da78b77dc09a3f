"""The real world behind seams: frame sources, GPIO, the chute sensor, the simulated tower.

Every device takes its back-end in the constructor with one working default; settings and
environment variables (see companion.settings) choose between real, mock and simulated parts.
Device threads never touch widgets: they post to callbacks.

- `stack.Devices`: everything below chosen from the settings, started and stopped as one.
- `frames`: `Frame`, `FrameSource`, `open_source(spec)` (OpenCV, picamera2, video file, `sim`).
- `gpio`: `TowerPanel` (next/undo buttons, LED ring, tray break-beam) on a gpiozero pin factory.
- `readings`: `ReadingService` (camera first, chute sensor next, the person last) and `decide`.
- `feeds`: `CameraFeed` (frames through vision's Settler) and `ChuteFeed` (the chute reader).
- `health`: `SourceHealth`, each input's state and what to do about it.
- `simtower`: `SimulatedTower` with sticking cubes and faults; `sim_camera`: its camera.
- `simtable`: a seeded game played through the simulated devices (end-to-end tests, benchmarks).
- `chute/`: the chute sensor's protocol, host reader and simulated board.
- `tray_render`: the renderer of simulated tray pictures.
"""
