"""`keybench check`: a user's own schema or row-key template, judged by the split model.

The emulator reads the user's DDL (`reader.py`, the one module here that talks to a
database); everything else is pure: the schema's facts (`schema.py`), each key column's
value distribution (`inference.py`), the key spaces mapped onto keybench's key-part
vocabulary and modelled (`keyspaces.py`), the documented rule and fix (`fixes.py`), a
Bigtable row-key template (`template.py`), the printed report (`check_text.py`) and the typed
findings (`check_result.py`);
`command.py` puts them in order."""
