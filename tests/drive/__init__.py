"""Tests of keybench/drive/."""
