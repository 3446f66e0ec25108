// SPDX-License-Identifier: MIT
// Never deployed: its runtime code is injected with an eth_call state override, so the safety
// view can simulate a buy and a sell through a Uniswap V2 router on any chain without sending
// anything. Each leg is measured at the pair (what left it, what arrived in it), so a token's
// transfer tax shows up exactly instead of being mixed with the pool's fee and price impact.
pragma solidity ^0.8.20;

interface IProbeToken {
    function balanceOf(address) external view returns (uint256);
}

interface IProbeRouter {
    function swapExactETHForTokensSupportingFeeOnTransferTokens(
        uint256 amountOutMin,
        address[] calldata path,
        address to,
        uint256 deadline
    ) external payable;

    function swapExactTokensForETHSupportingFeeOnTransferTokens(
        uint256 amountIn,
        uint256 amountOutMin,
        address[] calldata path,
        address to,
        uint256 deadline
    ) external;
}

contract SafetyProbe {
    // stage: 0 complete, 1 buy reverted, 2 nothing received, 3 approve failed, 4 sell reverted
    struct Result {
        uint8 stage;
        uint256 ethIn;
        uint256 buyPairOut;
        uint256 buyReceived;
        uint256 sellPairIn;
        uint256 ethOut;
    }

    receive() external payable {}

    function probe(address router, address weth, address token, address pair, uint256 ethIn)
        external
        returns (Result memory r)
    {
        r.ethIn = ethIn;
        address[] memory path = new address[](2);
        path[0] = weth;
        path[1] = token;

        uint256 pairBefore = IProbeToken(token).balanceOf(pair);
        uint256 mineBefore = IProbeToken(token).balanceOf(address(this));
        try IProbeRouter(router).swapExactETHForTokensSupportingFeeOnTransferTokens{value: ethIn}(
            0, path, address(this), block.timestamp
        ) {} catch {
            r.stage = 1;
            return r;
        }
        r.buyPairOut = _diff(pairBefore, IProbeToken(token).balanceOf(pair));
        r.buyReceived = _diff(IProbeToken(token).balanceOf(address(this)), mineBefore);
        if (r.buyReceived == 0) {
            r.stage = 2;
            return r;
        }

        // Low-level so tokens that return nothing from approve (USDT style) still pass.
        (bool ok, bytes memory ret) =
            token.call(abi.encodeWithSelector(0x095ea7b3, router, type(uint256).max));
        if (!ok || (ret.length >= 32 && abi.decode(ret, (uint256)) == 0)) {
            r.stage = 3;
            return r;
        }

        path[0] = token;
        path[1] = weth;
        uint256 pairBeforeSell = IProbeToken(token).balanceOf(pair);
        uint256 ethBefore = address(this).balance;
        try IProbeRouter(router).swapExactTokensForETHSupportingFeeOnTransferTokens(
            r.buyReceived, 0, path, address(this), block.timestamp
        ) {} catch {
            r.stage = 4;
            return r;
        }
        r.sellPairIn = _diff(IProbeToken(token).balanceOf(pair), pairBeforeSell);
        r.ethOut = _diff(address(this).balance, ethBefore);
    }

    function _diff(uint256 a, uint256 b) private pure returns (uint256) {
        return a > b ? a - b : 0;
    }
}
