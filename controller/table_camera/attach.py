"""Starting the table camera with the service: ``hongsi serve --table-camera`` or ``[table_camera] source``."""

from __future__ import annotations

from typing import Any

from controller.table_camera.watcher import TableWatcher


def attach_table_camera(svc: Any, cfg: Any, *, sim: bool, virtual_rig: Any = None, fps: float = 12.0,
                        say: Any = print) -> tuple[TableWatcher, Any]:
    """The watcher of ``cfg.table_camera`` (on the virtual table when ``sim`` or source ``sim``), started
    and attached to ``svc``; and the virtual table it started (or None). ValueError: a camera that
    cannot be opened (one line)."""
    from controller.camera import CameraError, open_camera

    tc = cfg.table_camera
    virtual = None
    source = tc.source
    if not sim and not source:
        raise ValueError("--table-camera: no table camera configured: set [table_camera] source in the config "
                         "(a device, an MJPEG URL, or 'sim'), or run with --sim")
    if sim or source == "sim":
        from firmware_bridge.sim.table_camera import VirtualTable

        camera = getattr(virtual_rig, "camera", None)
        virtual = VirtualTable(design=getattr(camera, "design", None), fps=fps)
        source = virtual.start()
        say("virtual table camera: on")  # not its URL: the secret path is this process's own
    try:
        camera = open_camera(source, exposure_us=tc.exposure_us)
    except CameraError as exc:
        if virtual is not None:
            virtual.stop()
        raise ValueError(f"table camera {source!r}: {exc}") from None
    watcher = TableWatcher(svc, camera, virtual=virtual, corners=tc.corners or None,
                           settle_frames=tc.settle_frames, pass_after=tc.pass_after_s)
    svc.table_camera = watcher
    return watcher.start(), virtual
