"""A throwaway local stack and its checks, shared by the benchmarks (tools/), the load and fault drills
(loadtest/) and the tests: Redis (``devredis``), the API under gunicorn (``devserve``), the whole service as
child processes (``stack``), cheap protocol-v1 bots (``fastbot``), CPU accounting (``procstat``) and the
post-run audits (``verify``). Not part of the service: api/, arena/ and engine/ never import it.
"""
