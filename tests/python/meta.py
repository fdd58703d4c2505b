#!/usr/bin/env python3
# Python (PyGObject) reads each frame's figures from the buffers clfilter
# pushes: the "clfilter-stats" GstCustomMeta, whose structure has the
# fields of the clfilter-stats message.  Two filters in a row: each one's
# output carries exactly one such meta, with its own figures (the second
# overwrites those of the first, copied onto its output), equal field for
# field to the message the same filter posted for the same frame.
# Run by meson (suite element) with the gst-check tests' environment.
import gc
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstApp", "1.0")
# GstApp: appsink as GstApp.AppSink, with pull_sample().
from gi.repository import GLib, GObject, Gst, GstApp  # noqa: E402,F401

FRAMES = 6
META = "clfilter-stats"
FIELDS = {
    "frame": GObject.TYPE_UINT64,
    "mode": GObject.TYPE_STRING,
    "radius": GObject.TYPE_UINT,
    "border": GObject.TYPE_STRING,
    "kernel-ns": GObject.TYPE_UINT64,
    "upload-ns": GObject.TYPE_UINT64,
    "download-ns": GObject.TYPE_UINT64,
    "copies": GObject.TYPE_UINT,
    "device-copies": GObject.TYPE_UINT,
    "passthrough": GObject.TYPE_BOOLEAN,
}
# Filter a blurs without a copy; b sharpens with copies, so that the fields
# differ between the two and a stale figure of a's cannot pass for b's.
LAUNCH = (
    f"videotestsrc num-buffers={FRAMES} ! "
    "video/x-raw,format=GRAY8,width=32,height=24 ! "
    "clfilter name=a mode=sliding radius=2 ! "
    "clfilter name=b mode=laplace border=mirror zero-copy=false ! "
    "appsink name=sink sync=false"
)


def figures(buf, where):
    """The buffer's one clfilter-stats meta, as a dict of its fields."""
    info = Gst.Meta.get_info(META)
    assert info is not None, f"{where}: no meta named {META} is registered"
    n = buf.get_n_meta(info.api)
    assert n == 1, f"{where}: {n} {META} metas on one buffer"
    meta = buf.get_custom_meta(META)
    s = meta.get_structure()
    assert s.get_name() == META, s.to_string()
    names = {s.nth_field_name(i) for i in range(s.n_fields())}
    assert names == set(FIELDS), f"{where}: fields {sorted(names)}"
    for name, gtype in FIELDS.items():
        assert s.get_field_type(name) == gtype, f"{where}: {s.to_string()}"
    return {name: s.get_value(name) for name in FIELDS}


def record_a(pad, info, seen):
    """Filter a's output; a failure is kept for main to raise."""
    try:
        seen.append(figures(info.get_buffer(), f"a frame {len(seen)}"))
    except AssertionError as failure:
        seen.append(failure)
    return Gst.PadProbeReturn.OK


def stats_messages(bus):
    """clfilter-stats fields by filter, in the order they were posted."""
    posted = {"a": [], "b": []}
    while True:
        msg = bus.pop_filtered(Gst.MessageType.ELEMENT | Gst.MessageType.ERROR)
        if msg is None:
            return posted
        assert msg.type != Gst.MessageType.ERROR, msg.parse_error()
        s = msg.get_structure()
        if s.has_name("clfilter-stats"):
            posted[msg.src.get_name()].append(
                {name: s.get_value(name) for name in FIELDS})


GLIB_WARNINGS = []
SERIOUS = (GLib.LogLevelFlags.LEVEL_WARNING | GLib.LogLevelFlags.LEVEL_CRITICAL
           | GLib.LogLevelFlags.LEVEL_ERROR)


def log_writer(level, fields, n_fields, user_data):
    """Keeps GLib's warnings and criticals, as gst-check fails on them.
    (Making them fatal is not enough: PoCL's LLVM catches the SIGTRAP.)"""
    if level & SERIOUS:
        GLIB_WARNINGS.append(GLib.log_writer_format_fields(level, fields,
                                                           False))
    return GLib.log_writer_default(level, fields, user_data)


def main():
    GLib.log_set_writer_func(log_writer, None)
    Gst.init(None)
    pipeline = Gst.parse_launch(LAUNCH)
    sink = pipeline.get_by_name("sink")
    a = pipeline.get_by_name("a")
    seen_a, seen_b = [], []
    pad = a.get_static_pad("src")
    pad.add_probe(Gst.PadProbeType.BUFFER, record_a, seen_a)

    assert pipeline.set_state(Gst.State.PLAYING) != Gst.StateChangeReturn.FAILURE
    while True:
        sample = sink.pull_sample()
        if sample is None:
            break
        seen_b.append(figures(sample.get_buffer(), f"b frame {len(seen_b)}"))
    bus = pipeline.get_bus()
    posted = stats_messages(bus)
    pipeline.set_state(Gst.State.NULL)

    for failure in seen_a:
        if isinstance(failure, AssertionError):
            raise failure
    for name, seen in (("a", seen_a), ("b", seen_b)):
        assert len(seen) == FRAMES, f"{name}: {len(seen)} frames"
        assert len(posted[name]) == FRAMES, f"{name}: {len(posted[name])} stats"
        for i, (meta, msg) in enumerate(zip(seen, posted[name])):
            assert meta == msg, f"{name} frame {i}: meta {meta}, message {msg}"
            assert meta["frame"] == i and meta["kernel-ns"] > 0, meta
    assert seen_a[0]["mode"] == "sliding" and seen_a[0]["copies"] == 0
    assert seen_b[0]["mode"] == "laplace" and seen_b[0]["copies"] == 2
    print(f"{FRAMES} frames through a and b: meta = clfilter-stats; b frame 0:",
          seen_b[0])

    # Everything let go before GStreamer is: the leaks tracer (GST_TRACERS)
    # reports what is still alive at deinit.
    del pipeline, sink, a, pad, bus, sample
    gc.collect()
    Gst.deinit()
    assert not GLIB_WARNINGS, "".join(GLIB_WARNINGS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
