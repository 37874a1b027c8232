INSERT INTO strings VALUES(1,'kernel_a'),(268435456,'kernel_far');
INSERT INTO processes(process, pid, complete) VALUES(1, 100, 1);
INSERT INTO devices(process, device, name, sm_count) VALUES(1, 0, 'H200', 132);
INSERT INTO contexts VALUES(1, 1, 0, 7, 0);
INSERT INTO streams VALUES(1, 1, 7, 0, 3, NULL);
INSERT INTO kernels(id, process, device, context, stream, correlation, demangled, start, end) VALUES(1, 1, 0, 1, 7, 1, 1, 1000, 2000), (50000000, 1, 0, 1, 7, 2, 268435456, 3000, 4000);
INSERT INTO api_calls(id, process, thread, name, start, end, correlation) VALUES(1, 1, 5, 1, 900, 950, 1), (60000000, 1, 5, 1, 2900, 2950, 2);
INSERT INTO memcpys(id, process, device, context, stream, correlation, copy_kind, bytes, start, end) VALUES(70000000, 1, 0, 1, 7, 3, 1, 64, 5000, 6000);
