"""What every command handler reads about its chat: who asks and where (scope), and the session
as the table sees it (table)."""
