"""The table service (``hongsi serve``): web display, seat pages, operator page, live refereeing, voice.

- :func:`create_app` — the FastAPI app (``controller.service.app``);
- :class:`TableService` — the core without HTTP: rounds, refereeing, bots, e-stop, ledger
  (``controller.service.table``);
- tokens (``tokens``), live events (``hub``), where cards come from (``deal``), bots, voice, the
  dispute view (``dispute``), and the pages in ``static/`` (plain HTML/CSS/JS, no build step).
"""

from controller.service.app import create_app
from controller.service.table import ServiceError, TableService

__all__ = ["create_app", "TableService", "ServiceError"]
