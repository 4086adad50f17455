"""Multi-axis rotary caches read back: layout, axis of each pair, θ per axis, against presets."""
