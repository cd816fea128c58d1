"""The commands a player types, one module per concern; each exports its HANDLERS, which only
the application (bot/app.py) wires."""
