"""Hand entry, one way in a folder:

- `ctx`: what entry knows about the session and the chat; `controls`: a form's controls built
  from a variant's own models; `screens`: the words and keyboard rows every screen shares.
- `wizard/`: the /hand wizard, one message edited in place (`flow`: the steps and screens;
  `keyboard`: the tile keyboard; `reading`: a winner's tiles read into features; `ready`: 查叫
  by tiles at an exhausted wall).
- `hu/`: the /hu line typed in the players' own words (`words`, `tiles`, `ready`).
"""
