"""Tests of loadtests/measure/."""
