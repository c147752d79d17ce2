"""gangviz.experiments"""
