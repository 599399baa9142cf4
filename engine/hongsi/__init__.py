"""红桃四 (拐三): combinations, settings, the state and referee, scoring, bots (see ``hongsi-rules.md``)."""
