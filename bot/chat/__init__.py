"""What every command handler reads about its chat: who asks and where (scope), and the session
as the table sees it (table); settling up (settle) and the group's season (season), shared by
the commands and the page."""
