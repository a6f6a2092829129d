# No technique beyond what the backbone file sets: the baseline.
technique = dict()
