"""Bots for every game, that see only what their seat may see.

- :mod:`engine.bots.infoset`: a seat's information set (its view, its dealt hand, the public record);
- :mod:`engine.bots.greedy`: the plain greedy policy (the fallback, and the search's rollouts);
- :mod:`engine.bots.determinize`: hidden cards sampled consistently with everything public;
- :mod:`engine.bots.search`: determinized rollouts voted over samples, within a time budget.
"""
