"""Both processes: the channel, the row vocabulary and formatting the panel shows, keys, settings the panel reads."""
