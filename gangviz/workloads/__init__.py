"""gangviz.workloads"""
