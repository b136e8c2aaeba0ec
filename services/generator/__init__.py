"""The generator service: parent selection → teacher → sandbox → archive, attempts in flight."""
