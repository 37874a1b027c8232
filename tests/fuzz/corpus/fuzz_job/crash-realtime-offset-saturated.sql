
INSERT INTO processes(process, pid, host, rank, start_ns, end_ns, realtime_offset_ns, complete) VALUES(1, 1000, 'no', '0', 0, 20000000, 1796021474836470000000000, 1);
INS0);
INSERT INTO kernels(process, device, context, stream, correlation, name, demangled, queued, submitted, start, end, grid_x, grid_y, grid_z, block_x, block_y, block_z) VALUES(1, 0, 1, 7, 1, 1, 1, 1049100, 1049600,0000, 1250000, 132, 1, 1, 256, 1, 1);
INSidm