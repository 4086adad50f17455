"""Ports: the files of serving engines, read by their headers (GGUF, llama.cpp's)."""
