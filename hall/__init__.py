"""The tournament hall: table nodes publish their record through an MQTT broker (Mosquitto) to
one referee desk. ``hall.publish`` is the node side (never imports the dashboard),
``hall.desk`` the desk side, ``hall.broker`` runs a real Mosquitto for tests and the bench."""
