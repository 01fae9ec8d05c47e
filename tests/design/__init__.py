"""Tests of keybench/design/."""
