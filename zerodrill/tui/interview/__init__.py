"""``zerodrill interview``'s screens: the question against a clock, the points, each follow-up,
the red flags, the end (see interview_app.py)."""
