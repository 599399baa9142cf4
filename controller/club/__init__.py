"""The card room (棋牌室): many tables publish to one MQTT broker, one club server stores on PostgreSQL.

- :mod:`.messages`  the wire format (topics, envelopes, receipts) and the checks on it, as data;
- :mod:`.outbox`    the table's on-disk queue (SQLite): offline tables queue in order and catch up;
- :mod:`.publisher` the table's side: ``attach_publisher(service, config)`` (paho-mqtt, QoS 1);
- :mod:`.store`     the club's PostgreSQL archive (psycopg 3, Alembic migrations);
- :mod:`.server`    ``hongsi club serve``: subscribe, check, store, acknowledge;
- :mod:`.page`      the room page (FastAPI + plain JS) with staff accounts;
- :mod:`.local`     mosquitto and PostgreSQL as local services in a project folder (``make club``, tests).
"""
