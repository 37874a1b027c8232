INSERT INTO strings VALUES(1,'kernel_a'),(2,'cudaLaunchKernel');
INSERT INTO processes(process, pid, complete, start_ns, end_ns) VALUES(1, 100, 1, -9223372036854775808, 9223372036854775807);
INSERT INTO devices(process, device, name, sm_count) VALUES(1, 0, 'H200', 132);
INSERT INTO contexts VALUES(1, 1, 0, 7, 0);
INSERT INTO streams VALUES(1, 1, 7, 0, 3, NULL);
INSERT INTO kernels(process, device, context, stream, correlation, demangled, queued, submitted, start, end, grid_x, grid_y, grid_z) VALUES(1, 0, 1, 7, 1, 1, 9223372036854775807, -9223372036854775807, -9223372036854775807, 9223372036854775807, 4294967295, 4294967295, 4294967295), (1, 0, 1, 7, 2, 1, NULL, NULL, -9223372036854775808, 5, 1, 1, 1), (1, 0, 1, 7, 3, 1, NULL, NULL, 9223372036854775806, -9223372036854775808, 1, 1, 1);
INSERT INTO api_calls(process, thread, name, start, end, correlation) VALUES(1, 5, 2, 9223372036854775807, -9223372036854775808, 1), (1, 5, 2, -9223372036854775808, 0, 2);
INSERT INTO syncs(process, type, context, stream, start, end, correlation) VALUES(1, 3, 1, 7, -9223372036854775808, 9223372036854775807, 9);
INSERT INTO nvtx(process, thread, domain, name, start, end) VALUES(1, 5, NULL, 1, -9223372036854775808, 9223372036854775807), (1, 5, NULL, 1, -9223372036854775807, NULL);
