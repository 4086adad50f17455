"""Ports: how llama.cpp, vLLM, MLX and TensorRT-LLM read a rotary config, and diffs.

Pure NumPy; no I/O. See docs/porting.md.
"""
