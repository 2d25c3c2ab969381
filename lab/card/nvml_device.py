"""NVML through ctypes for the lab's card scripts (nvml_counter.py, nvml_costs.py): the library,
initialised, and one device's handle. No pynvml needed: libnvidia-ml.so.1 comes with the driver."""
import ctypes


def open_device(index: int):
    """(the NVML library, the handle of device `index`); asserts that NVML answers."""
    nvml = ctypes.CDLL("libnvidia-ml.so.1")
    assert nvml.nvmlInit_v2() == 0
    dev = ctypes.c_void_p()
    assert nvml.nvmlDeviceGetHandleByIndex_v2(index, ctypes.byref(dev)) == 0
    return nvml, dev
