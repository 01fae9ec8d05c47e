"""Tests of loadtests/model/."""
