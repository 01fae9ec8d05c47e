"""`keybench observe`: what a live database or cluster reported of its own hot key ranges, beside the model."""
