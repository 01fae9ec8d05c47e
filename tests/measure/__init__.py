"""Tests of keybench/measure/."""
