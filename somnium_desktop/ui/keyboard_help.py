"""The keyboard help: every shortcut of the app, and how signing in is shared."""

SHORTCUTS_HELP = """<b>Keyboard</b><br>
D — draw a card<br>
E — end your turn and bank the table<br>
1 … 9, 0 — after a Fool, steal Angels … Demons<br>
← → then Enter — after a Fool, pick a suit to steal and steal it<br>
R — rematch, once the game is over<br>
Esc — put the result away, to look over the final table<br>
Alt+C — concede (asks first)<br>
W — claim the win from an opponent who left the table (online, after two minutes)<br>
H or ? — offline, on your turn: what would the expert do?<br>
P — replay a finished game; in a replay ← → step, Home and End jump to the ends<br>
A — in a replay: the analysis of the game (a click on its graph moves the replay)<br>
Ctrl+N — new offline game at the level picked on the right (asks first if one is in play)<br>
Ctrl+L — the lobby's list of games: arrows move, Enter on a game's name watches, on an open
seat joins, on a player opens their page, on a finished game's result replays it<br>
Ctrl+J — join a game by its id<br>
Tab — move between the buttons, the lobby, the level picker and the log<br><br>
<b>Signing in</b><br>
One sign-in per lobby server for your user of the computer (kept in your keyring): every
Somnium window you open on that server follows it. Signing out in one window signs them all
out; signing in as someone else signs them all in as that account."""
