"""gangviz.core"""
