"""Tests of keybench/model/."""
