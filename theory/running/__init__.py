"""Running claims: family discovery and loading of users' files (``registry``), checking many claims in
worker processes (``runner``) and the verdict cache (``verdict_cache``).
"""
