"""Database bindings behind one small interface (`base.Backend`)."""
