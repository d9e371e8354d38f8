SELECT count(*)::INTEGER AS n FROM jobs WHERE kind = $kind
