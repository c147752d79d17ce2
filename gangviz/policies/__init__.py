"""gangviz.policies"""
