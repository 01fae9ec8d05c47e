"""Tests of keybench/run/."""
