CREATE TABLE StringIds (
    id                          INTEGER   NOT NULL   PRIMARY KEY,
    value                       TEXT      NOT NULL
);
CREATE TABLE ThreadNames (
    nameId                      INTEGER   NOT NULL,
    priority                    INTEGER,
    globalTid                   INTEGER
);
INSERT INTO ThreadNames VALUES(0,0,9462350388);
CREATE TABLE PROCESSES (
    globalPid                   INTEGER,
    pid                         INTEGER,
    name                        TEXT
);
INSERT INTO PROCESSES VALUES(9462349824,564,'copies');
CREATE TABLE ANALYSIS_DETAILS (
    globalVid                   INTEGER   NOT NULL,
    duration                    INTEGER   NOT NULL,
    startTime                   INTEGER   NOT NULL,
    stopTime                    INTEGER   NOT NULL
);
INSERT INTO ANALYSIS_DETAILS VALUES(0,405470582,0,405470582);
CREATE TABLE TARGET_INFO_SYSTEM_ENV (
    globalVid                   INTEGER,
    devStateName                TEXT      NOT NULL,
    name                        TEXT      NOT NULL,
    nameEnum                    INTEGER   NOT NULL,
    value                       TEXT      NOT NULL
);
INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES(0,'','Hostname',0,'vm');
CREATE TABLE META_DATA_EXPORT (
    name                        TEXT      NOT NULL,
    value                       TEXT
);
INSERT INTO META_DATA_EXPORT VALUES('EXPORT_SCHEMA_VERSION','3.28.1');
INSERT INTO META_DATA_EXPORT VALUES('EXPORT_PRODUCT_NAME','kgantt tests/tools/kgt_to_nsys.py: a kgantt trace in the Nsight Systems export layout');
CREATE TABLE TARGET_INFO_CUDA_DEVICE (
    gpuId                       INTEGER,
    cudaId                      INTEGER   NOT NULL,
    pid                         INTEGER   NOT NULL,
    uuid                        TEXT,
    numMultiprocessors          INTEGER
);
INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES(0,0,564,'bcc1dfc1-2d22-b7fe-0cb8-970918da4ec7',132);
CREATE TABLE TARGET_INFO_CUDA_STREAM (
    streamId                    INTEGER   NOT NULL,
    hwId                        INTEGER   NOT NULL,
    vmId                        INTEGER   NOT NULL,
    processId                   INTEGER   NOT NULL,
    contextId                   INTEGER   NOT NULL,
    priority                    INTEGER   NOT NULL,
    flag                        INTEGER   NOT NULL
);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(6,0,0,564,1,0,1);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(7,0,0,564,1,0,3);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(8,0,0,564,1,0,2);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(9,0,0,564,1,0,2);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(10,0,0,564,1,0,2);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(11,0,0,564,1,0,2);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(12,0,0,564,1,-5,1);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(13,0,0,564,1,0,1);
CREATE TABLE TARGET_INFO_GPU (
    vmId                        INTEGER   NOT NULL,
    id                          INTEGER   NOT NULL,
    name                        TEXT,
    busLocation                 TEXT,
    isDiscrete                  INTEGER,
    l2CacheSize                 INTEGER,
    totalMemory                 INTEGER,
    memoryBandwidth             INTEGER,
    clockRate                   INTEGER,
    smCount                     INTEGER,
    pwGpuId                     INTEGER,
    uuid                        TEXT,
    luid                        INTEGER,
    chipName                    TEXT,
    cuDevice                    INTEGER,
    ctxswDevPath                TEXT,
    ctrlDevPath                 TEXT,
    revision                    INTEGER,
    nodeMask                    INTEGER,
    constantMemory              INTEGER,
    maxIPC                      INTEGER,
    maxRegistersPerBlock        INTEGER,
    maxShmemPerBlock            INTEGER,
    maxShmemPerBlockOptin       INTEGER,
    maxShmemPerSm               INTEGER,
    maxRegistersPerSm           INTEGER,
    threadsPerWarp              INTEGER,
    asyncEngines                INTEGER,
    maxWarpsPerSm               INTEGER,
    maxBlocksPerSm              INTEGER,
    maxThreadsPerBlock          INTEGER,
    maxBlockDimX                INTEGER,
    maxBlockDimY                INTEGER,
    maxBlockDimZ                INTEGER,
    maxGridDimX                 INTEGER,
    maxGridDimY                 INTEGER,
    maxGridDimZ                 INTEGER,
    computeMajor                INTEGER,
    computeMinor                INTEGER,
    smMajor                     INTEGER,
    smMinor                     INTEGER,
    numaNodeId                  INTEGER
);
INSERT INTO TARGET_INFO_GPU VALUES(0,0,'NVIDIA H200','',1,62914560,150109880320,4814304000000,1980000000,132,NULL,'bcc1dfc1-2d22-b7fe-0cb8-970918da4ec7',NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,65536,49152,NULL,233472,65536,32,3,64,32,1024,NULL,NULL,NULL,NULL,NULL,NULL,9,0,9,0,NULL);
CREATE TABLE TARGET_INFO_CUDA_CONTEXT_INFO (
    nullStreamId                INTEGER   NOT NULL,
    hwId                        INTEGER   NOT NULL,
    vmId                        INTEGER   NOT NULL,
    processId                   INTEGER   NOT NULL,
    deviceId                    INTEGER   NOT NULL,
    contextId                   INTEGER   NOT NULL,
    parentContextId             INTEGER,
    isGreenContext              INTEGER,
    numMultiprocessors          INTEGER,
    numTpcs                     INTEGER,
    tpcMask                     TEXT,
    workqueueResourceId         INTEGER,
    workqueueConcurrencyLimit   INTEGER,
    workqueueSharingScope       INTEGER,
    workqueueChannelCount       INTEGER,
    workqueueChannelIds         TEXT
);
INSERT INTO TARGET_INFO_CUDA_CONTEXT_INFO VALUES(7,0,0,564,0,1,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (
    id                          INTEGER   NOT NULL   PRIMARY KEY,
    name                        TEXT,
    label                       TEXT
);
CREATE TABLE ENUM_CUDA_MEM_KIND (
    id                          INTEGER   NOT NULL   PRIMARY KEY,
    name                        TEXT,
    label                       TEXT
);
CREATE TABLE ENUM_CUPTI_SYNC_TYPE (
    id                          INTEGER   NOT NULL   PRIMARY KEY,
    name                        TEXT,
    label                       TEXT
);
CREATE TABLE ENUM_CUPTI_STREAM_TYPE (
    id                          INTEGER   NOT NULL   PRIMARY KEY,
    name                        TEXT,
    label                       TEXT
);
CREATE TABLE ENUM_NSYS_EVENT_TYPE (
    id                          INTEGER   NOT NULL   PRIMARY KEY,
    name                        TEXT,
    label                       TEXT
);
CREATE TABLE ENUM_NSYS_EVENT_CLASS (
    id                          INTEGER   NOT NULL   PRIMARY KEY,
    name                        TEXT,
    label                       TEXT
);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (
    start                       INTEGER   NOT NULL,
    end                         INTEGER   NOT NULL,
    deviceId                    INTEGER   NOT NULL,
    contextId                   INTEGER   NOT NULL,
    greenContextId              INTEGER,
    streamId                    INTEGER   NOT NULL,
    correlationId               INTEGER,
    globalPid                   INTEGER,
    demangledName               INTEGER   NOT NULL,
    shortName                   INTEGER   NOT NULL,
    mangledName                 INTEGER,
    launchType                  INTEGER,
    cacheConfig                 INTEGER,
    registersPerThread          INTEGER   NOT NULL,
    gridX                       INTEGER   NOT NULL,
    gridY                       INTEGER   NOT NULL,
    gridZ                       INTEGER   NOT NULL,
    blockX                      INTEGER   NOT NULL,
    blockY                      INTEGER   NOT NULL,
    blockZ                      INTEGER   NOT NULL,
    staticSharedMemory          INTEGER   NOT NULL,
    dynamicSharedMemory         INTEGER   NOT NULL,
    localMemoryPerThread        INTEGER   NOT NULL,
    localMemoryTotal            INTEGER   NOT NULL,
    gridId                      INTEGER   NOT NULL,
    sharedMemoryExecuted        INTEGER,
    graphNodeId                 INTEGER,
    sharedMemoryLimitConfig     INTEGER,
    qmdBulkReleaseDone          INTEGER,
    qmdPreexitDone              INTEGER,
    qmdLastCtaDone              INTEGER,
    graphId                     INTEGER,
    clusterX                    INTEGER,
    clusterY                    INTEGER,
    clusterZ                    INTEGER,
    clusterSchedulingPolicy     INTEGER,
    maxPotentialClusterSize     INTEGER,
    maxActiveClusters           INTEGER,
    sharedMemoryRequestedPercentage INTEGER,
    tensorSizeMinusOneElements  TEXT      NOT NULL
);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(261691649,262632609,0,1,NULL,13,130,9462349824,1,2,3,0,0,16,1056,1,1,256,1,1,0,0,0,155713536,2,32768,NULL,NULL,NULL,NULL,NULL,NULL,0,0,0,NULL,NULL,NULL,NULL,'');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(270657444,271598244,0,1,NULL,13,136,9462349824,1,2,3,0,0,16,1056,1,1,256,1,1,0,0,0,155713536,4,32768,NULL,NULL,NULL,NULL,NULL,NULL,0,0,0,NULL,NULL,NULL,NULL,'');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(278095046,279035686,0,1,NULL,13,142,9462349824,1,2,3,0,0,16,1056,1,1,256,1,1,0,0,0,155713536,6,32768,NULL,NULL,NULL,NULL,NULL,NULL,0,0,0,NULL,NULL,NULL,NULL,'');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(285508072,286449097,0,1,NULL,13,148,9462349824,1,2,3,0,0,16,1056,1,1,256,1,1,0,0,0,155713536,8,32768,NULL,NULL,NULL,NULL,NULL,NULL,0,0,0,NULL,NULL,NULL,NULL,'');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(293134378,294075531,0,1,NULL,13,154,9462349824,1,2,3,0,0,16,1056,1,1,256,1,1,0,0,0,155713536,10,32768,NULL,NULL,NULL,NULL,NULL,NULL,0,0,0,NULL,NULL,NULL,NULL,'');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(300488525,301429261,0,1,NULL,13,160,9462349824,1,2,3,0,0,16,1056,1,1,256,1,1,0,0,0,155713536,12,32768,NULL,NULL,NULL,NULL,NULL,NULL,0,0,0,NULL,NULL,NULL,NULL,'');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(307765743,308705999,0,1,NULL,13,166,9462349824,1,2,3,0,0,16,1056,1,1,256,1,1,0,0,0,155713536,14,32768,NULL,NULL,NULL,NULL,NULL,NULL,0,0,0,NULL,NULL,NULL,NULL,'');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(315026673,315967921,0,1,NULL,13,172,9462349824,1,2,3,0,0,16,1056,1,1,256,1,1,0,0,0,155713536,16,32768,NULL,NULL,NULL,NULL,NULL,NULL,0,0,0,NULL,NULL,NULL,NULL,'');
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (
    start                       INTEGER   NOT NULL,
    end                         INTEGER   NOT NULL,
    deviceId                    INTEGER   NOT NULL,
    contextId                   INTEGER   NOT NULL,
    greenContextId              INTEGER,
    streamId                    INTEGER   NOT NULL,
    correlationId               INTEGER,
    globalPid                   INTEGER,
    bytes                       INTEGER   NOT NULL,
    copyKind                    INTEGER   NOT NULL,
    deprecatedSrcId             INTEGER,
    srcKind                     INTEGER,
    dstKind                     INTEGER,
    srcDeviceId                 INTEGER,
    srcContextId                INTEGER,
    dstDeviceId                 INTEGER,
    dstContextId                INTEGER,
    migrationCause              INTEGER,
    graphNodeId                 INTEGER,
    virtualAddress              INTEGER,
    copyCount                   INTEGER
);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(256814592,261604929,0,1,NULL,13,127,9462349824,33554432,1,NULL,0,2,0,1,0,1,NULL,NULL,NULL,1);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(262634657,265715714,0,1,NULL,7,132,9462349824,33554432,2,NULL,2,0,0,1,0,1,NULL,NULL,NULL,1);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(266033922,270623492,0,1,NULL,13,133,9462349824,33554432,1,NULL,0,2,0,1,0,1,NULL,NULL,NULL,1);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(271605316,273895749,0,1,NULL,7,138,9462349824,33554432,2,NULL,2,0,0,1,0,1,NULL,NULL,NULL,1);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(274128421,278069190,0,1,NULL,13,139,9462349824,33554432,1,NULL,0,2,0,1,0,1,NULL,NULL,NULL,1);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(279037510,281341479,0,1,NULL,7,144,9462349824,33554432,2,NULL,2,0,0,1,0,1,NULL,NULL,NULL,1);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(281589063,285492040,0,1,NULL,13,145,9462349824,33554432,1,NULL,0,2,0,1,0,1,NULL,NULL,NULL,1);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(286456392,288830601,0,1,NULL,7,150,9462349824,33554432,2,NULL,2,0,0,1,0,1,NULL,NULL,NULL,1);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (
    start                       INTEGER   NOT NULL,
    end                         INTEGER   NOT NULL,
    deviceId                    INTEGER   NOT NULL,
    contextId                   INTEGER   NOT NULL,
    greenContextId              INTEGER,
    streamId                    INTEGER   NOT NULL,
    correlationId               INTEGER,
    globalPid                   INTEGER,
    value                       INTEGER   NOT NULL,
    bytes                       INTEGER   NOT NULL,
    graphNodeId                 INTEGER,
    memKind                     INTEGER
);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES(261643361,261652129,0,1,NULL,7,128,9462349824,0,33554432,NULL,2);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES(270637156,270645540,0,1,NULL,7,134,9462349824,0,33554432,NULL,2);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES(278079846,278088006,0,1,NULL,7,140,9462349824,0,33554432,NULL,2);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES(285494216,285502568,0,1,NULL,7,146,9462349824,0,33554432,NULL,2);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES(293120395,293128651,0,1,NULL,7,152,9462349824,0,33554432,NULL,2);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES(300476141,300484333,0,1,NULL,7,158,9462349824,0,33554432,NULL,2);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES(307755983,307764079,0,1,NULL,7,164,9462349824,0,33554432,NULL,2);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES(315016849,315024977,0,1,NULL,7,170,9462349824,0,33554432,NULL,2);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (
    start                       INTEGER   NOT NULL,
    end                         INTEGER   NOT NULL,
    eventClass                  INTEGER   NOT NULL,
    globalTid                   INTEGER,
    correlationId               INTEGER,
    nameId                      INTEGER   NOT NULL,
    returnValue                 INTEGER   NOT NULL,
    callchainId                 INTEGER
);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(121902768,121904210,1,9462350388,1,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(121975027,121975560,1,9462350388,2,5,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(121976543,121986782,1,9462350388,3,6,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(121988445,121997199,1,9462350388,4,7,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(121998561,121999224,1,9462350388,5,8,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(122000023,122001111,1,9462350388,6,9,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(122001608,122001817,1,9462350388,7,9,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(122002142,122002402,1,9462350388,8,9,0,NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (
    start                       INTEGER   NOT NULL,
    end                         INTEGER   NOT NULL,
    deviceId                    INTEGER   NOT NULL,
    contextId                   INTEGER   NOT NULL,
    greenContextId              INTEGER,
    streamId                    INTEGER   NOT NULL,
    correlationId               INTEGER,
    globalPid                   INTEGER,
    deprecatedSyncType          INTEGER,
    syncType                    INTEGER   NOT NULL,
    eventId                     INTEGER   NOT NULL,
    eventSyncId                 INTEGER
);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES(256520127,256528369,0,1,NULL,4294967295,125,9462349824,NULL,4,4294967295,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES(318512306,318518406,0,1,NULL,4294967295,176,9462349824,NULL,4,4294967295,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES(335858211,335867842,0,1,NULL,4294967295,181,9462349824,NULL,4,4294967295,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES(335944182,335945622,0,1,NULL,4294967295,183,9462349824,NULL,4,4294967295,NULL);
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(0,'CUDA_MEMCPY_KIND_UNKNOWN','Unknown');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(1,'CUDA_MEMCPY_KIND_HTOD','Host-to-Device');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(2,'CUDA_MEMCPY_KIND_DTOH','Device-to-Host');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(3,'CUDA_MEMCPY_KIND_HTOA','Host-to-Array');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(4,'CUDA_MEMCPY_KIND_ATOH','Array-to-Host');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(5,'CUDA_MEMCPY_KIND_ATOA','Array-to-Array');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(6,'CUDA_MEMCPY_KIND_ATOD','Array-to-Device');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(7,'CUDA_MEMCPY_KIND_DTOA','Device-to-Array');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(8,'CUDA_MEMCPY_KIND_DTOD','Device-to-Device');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(9,'CUDA_MEMCPY_KIND_HTOH','Host-to-Host');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(10,'CUDA_MEMCPY_KIND_PTOP','Peer-to-Peer');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(11,'CUDA_MEMCPY_KIND_UVM_HTOD','Unified Host-to-Device');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(12,'CUDA_MEMCPY_KIND_UVM_DTOH','Unified Device-to-Host');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(13,'CUDA_MEMCPY_KIND_UVM_DTOD','Unified Device-to-Device');
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(0,'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE','Pageable');
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(1,'CUDA_MEMOPR_MEMORY_KIND_PINNED','Pinned');
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(2,'CUDA_MEMOPR_MEMORY_KIND_DEVICE','Device');
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(3,'CUDA_MEMOPR_MEMORY_KIND_ARRAY','Array');
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(4,'CUDA_MEMOPR_MEMORY_KIND_MANAGED','Managed');
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(5,'CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC','Device Static');
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(6,'CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC','Managed Static');
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(7,'CUDA_MEMOPR_MEMORY_KIND_UNKNOWN','Unknown');
INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES(0,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN','Unknown');
INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES(1,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE','Event sync');
INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES(2,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT','Stream wait sync');
INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES(3,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE','Stream sync');
INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES(4,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE','Context sync');
INSERT INTO ENUM_CUPTI_STREAM_TYPE VALUES(0,'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_UNKNOWN','Unknown');
INSERT INTO ENUM_CUPTI_STREAM_TYPE VALUES(1,'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT','Default');
INSERT INTO ENUM_CUPTI_STREAM_TYPE VALUES(2,'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING','Non-blocking');
INSERT INTO ENUM_CUPTI_STREAM_TYPE VALUES(3,'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL','Null');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(33,'NvtxCategory','NvtxCategory');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(34,'NvtxMark','NvtxMark');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(39,'NvtxThread','NvtxThread');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(59,'NvtxPushPopRange','NvtxPushPopRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(60,'NvtxStartEndRange','NvtxStartEndRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(75,'NvtxDomainCreate','NvtxDomainCreate');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(76,'NvtxDomainDestroy','NvtxDomainDestroy');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(0,'TRACE_PROCESS_EVENT_CUDA_RUNTIME','CUDA runtime');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(1,'TRACE_PROCESS_EVENT_CUDA_DRIVER','CUDA driver');
INSERT INTO StringIds VALUES(0,'copies');
INSERT INTO StringIds VALUES(1,'copies_compute(float const*, float*, unsigned long, int)');
INSERT INTO StringIds VALUES(2,'copies_compute');
INSERT INTO StringIds VALUES(3,'_Z14copies_computePKfPfmi');
INSERT INTO StringIds VALUES(4,'cuModuleGetLoadingMode');
INSERT INTO StringIds VALUES(5,'cuDeviceGetCount');
INSERT INTO StringIds VALUES(6,'cuDeviceGet');
INSERT INTO StringIds VALUES(7,'cuDeviceGetName');
INSERT INTO StringIds VALUES(8,'cuDeviceTotalMem_v2');
INSERT INTO StringIds VALUES(9,'cuDeviceGetAttribute');
INSERT INTO StringIds VALUES(10,'cuDeviceGetUuid');
INSERT INTO StringIds VALUES(11,'cudaGetDevice_v3020');
INSERT INTO StringIds VALUES(12,'cudaOccupancyMaxActiveBlocksPerMultiprocessor_v6050');
INSERT INTO StringIds VALUES(13,'cudaDeviceGetAttribute_v5000');
INSERT INTO StringIds VALUES(14,'cudaMalloc_v3020');
INSERT INTO StringIds VALUES(15,'cudaDeviceSynchronize_v3020');
INSERT INTO StringIds VALUES(16,'cudaStreamCreate_v3020');
INSERT INTO StringIds VALUES(17,'cudaMemcpyAsync_v3020');
INSERT INTO StringIds VALUES(18,'cudaMemset_v3020');
INSERT INTO StringIds VALUES(19,'cuKernelGetName');
INSERT INTO StringIds VALUES(20,'cudaLaunchKernel_v7000');
INSERT INTO StringIds VALUES(21,'cudaGetLastError_v3020');
INSERT INTO StringIds VALUES(22,'cudaMemcpy_v3020');
INSERT INTO StringIds VALUES(23,'cudaStreamDestroy_v5050');
INSERT INTO StringIds VALUES(24,'cudaFree_v3020');
INSERT INTO StringIds VALUES(25,'cuCtxGetCurrent');
INSERT INTO StringIds VALUES(26,'cuCtxSynchronize');
