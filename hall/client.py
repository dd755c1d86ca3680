"""One way to build a paho client for the hall: MQTT 5, a persistent session (the broker keeps
what a client missed while it was away), credentials and TLS from ``HallConfig``."""

from __future__ import annotations

import ssl
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from hall.config import HallConfig, parse_broker

SESSION_EXPIRY_S = 86400  # a node away for a day still gets the desk's decisions


def make_client(
    cfg: HallConfig,
    client_id: str,
    default_user: str,
    *,
    will: tuple[str, str] | None = None,
) -> tuple[mqtt.Client, Any]:
    """The client and the CONNECT properties to pass to ``connect``."""
    broker = parse_broker(cfg.broker)
    client = mqtt.Client(
        CallbackAPIVersion.VERSION2,
        client_id=client_id,
        protocol=mqtt.MQTTv5,
    )
    user, password = cfg.credentials(default_user)
    if user is not None:
        client.username_pw_set(user, password)
    if broker.tls:
        ctx = ssl.create_default_context(cafile=str(cfg.ca_file) if cfg.ca_file else None)
        if cfg.cert_file is not None and cfg.key_file is not None:
            ctx.load_cert_chain(str(cfg.cert_file), str(cfg.key_file))
        client.tls_set_context(ctx)
    if will is not None:
        client.will_set(will[0], will[1], qos=1, retain=True)
    client.reconnect_delay_set(min_delay=1, max_delay=2)  # a hall's broker is near
    client.max_inflight_messages_set(100)
    props = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
    props.SessionExpiryInterval = SESSION_EXPIRY_S
    return client, props


def connect_async(client: mqtt.Client, cfg: HallConfig, props: Any) -> None:
    """Start connecting in the background; paho's loop keeps re-connecting after a loss."""
    broker = parse_broker(cfg.broker)
    client.connect_async(
        broker.host, broker.port, keepalive=cfg.keepalive_s, clean_start=False, properties=props
    )
    client.loop_start()
