"""gangviz.sim"""
