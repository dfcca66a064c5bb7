"""Backend-specific rewrites of worker pods: vLLM, SGLang, TRT-LLM (rendering-core section 4)."""
