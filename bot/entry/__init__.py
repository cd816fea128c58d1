"""Hand entry, one way in a folder:

- `ctx`: what entry knows about the session and the chat; `controls`: a form's controls built
  from a variant's own models; `screens`: the words and keyboard rows every screen shares;
  `record`: a hand record's rules (whole or not, the field still missing, defaults dropped);
  `preview`: a whole hand drawn, as the wizard's preview and the page show it; `keyboard`:
  the tile keyboard and a variant's tiles (the wizard's keys, the page's tiles).
- `wizard/`: the /hand wizard, one message edited in place (`flow`: the steps and screens;
  `reading`: a winner's tiles read into features; `ready`: 查叫 by tiles at an exhausted wall).
- `hu/`: the /hu line typed in the players' own words (`words`, `tiles`, `ready`), or as each
  seat's points where a style books hands so (`points`).
"""
