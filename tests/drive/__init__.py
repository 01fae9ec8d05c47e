"""Tests of loadtests/drive/."""
