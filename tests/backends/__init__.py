"""Tests of keybench/backends/."""
