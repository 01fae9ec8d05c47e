"""`keybench record`: recording proxies in front of the emulators, and the verdicts on the keys an application wrote."""
