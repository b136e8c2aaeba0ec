"""Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding.
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. Padding. 
"""
# expect-stage: static_policy
# expect-error: the limit is 4000
def build(level, rng):
    level.garbage(1)
