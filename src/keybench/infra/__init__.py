"""Infrastructure: the emulators, where a run writes (emulator or real instance), process
set-up before any gRPC client, and Ctrl-C."""
