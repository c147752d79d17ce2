"""gangviz.gui"""
